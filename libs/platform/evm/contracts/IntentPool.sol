// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @notice The platform's intent bridge, one pool per chain: the model of Across's SpokePool, much reduced.
/// On the source chain a deposit locks `inputAmount` of a token with what the recipient must get on the destination
/// chain (`outputToken`, `outputAmount`) and a fill deadline. On the destination chain the relayer pays the recipient
/// from its own funds before the deadline (`fill`, once per deposit). Back on the source chain the relayer takes the
/// deposit as its repayment once it has filled (`settle`), or gives it back to the depositor once the deadline passed
/// unfilled (`refund`). The relayer alone sees both chains, so it alone fills, settles and refunds.
contract IntentPool {
    using SafeERC20 for IERC20;

    enum Status {
        None,
        Deposited,
        Settled,
        Refunded
    }

    struct Deposit {
        address depositor;
        address inputToken;
        uint256 inputAmount;
        uint32 fillDeadline;
        Status status;
    }

    /// @notice Who fills on this chain and settles or refunds deposits made here.
    address public immutable relayer;
    /// @notice Deposits made here so far: the next deposit's id.
    uint256 public depositCount;
    mapping(uint256 depositId => Deposit) public deposits;
    /// @notice Fills made here, by `fillKey(originChainId, depositId)`: a deposit is filled once.
    mapping(bytes32 fill => bool) public filled;

    event Deposited(
        uint256 indexed depositId,
        address indexed depositor,
        address inputToken,
        uint256 inputAmount,
        uint256 destinationChainId,
        address outputToken,
        uint256 outputAmount,
        address recipient,
        uint32 fillDeadline
    );
    event Filled(uint256 indexed originChainId, uint256 indexed depositId, address outputToken, uint256 outputAmount, address indexed recipient);
    event Settled(uint256 indexed depositId, uint256 amount);
    event Refunded(uint256 indexed depositId, address indexed depositor, uint256 amount);

    error NotRelayer(address caller);
    error InvalidDeposit();
    error FillDeadlinePassed(uint32 fillDeadline);
    error FillDeadlineNotPassed(uint32 fillDeadline);
    error AlreadyFilled(uint256 originChainId, uint256 depositId);
    error NotOpen(uint256 depositId);

    constructor(address relayer_) {
        relayer = relayer_;
    }

    modifier onlyRelayer() {
        if (msg.sender != relayer) revert NotRelayer(msg.sender);
        _;
    }

    /// @notice The key of a fill: the chain the deposit was made on, and its id there.
    function fillKey(uint256 originChainId, uint256 depositId) public pure returns (bytes32) {
        return keccak256(abi.encode(originChainId, depositId));
    }

    /// @notice Locks `inputAmount` of `inputToken` (approved to this pool) for `recipient` to get `outputAmount` of
    /// `outputToken` on `destinationChainId` before `fillDeadline` (unix seconds).
    function deposit(
        address inputToken,
        uint256 inputAmount,
        uint256 destinationChainId,
        address outputToken,
        uint256 outputAmount,
        address recipient,
        uint32 fillDeadline
    ) external returns (uint256 depositId) {
        if (inputAmount == 0 || outputAmount == 0 || recipient == address(0) || fillDeadline <= block.timestamp) revert InvalidDeposit();
        depositId = depositCount++;
        deposits[depositId] = Deposit(msg.sender, inputToken, inputAmount, fillDeadline, Status.Deposited);
        IERC20(inputToken).safeTransferFrom(msg.sender, address(this), inputAmount);
        emit Deposited(depositId, msg.sender, inputToken, inputAmount, destinationChainId, outputToken, outputAmount, recipient, fillDeadline);
    }

    /// @notice Pays a deposit of `originChainId` to its recipient here, from the relayer's funds (approved to this
    /// pool), once, and not after its deadline.
    function fill(uint256 originChainId, uint256 depositId, address outputToken, uint256 outputAmount, address recipient, uint32 fillDeadline) external onlyRelayer {
        if (block.timestamp > fillDeadline) revert FillDeadlinePassed(fillDeadline);
        bytes32 key = fillKey(originChainId, depositId);
        if (filled[key]) revert AlreadyFilled(originChainId, depositId);
        filled[key] = true;
        IERC20(outputToken).safeTransferFrom(msg.sender, recipient, outputAmount);
        emit Filled(originChainId, depositId, outputToken, outputAmount, recipient);
    }

    /// @notice The relayer filled the deposit on its destination chain: it takes the deposit as its repayment.
    function settle(uint256 depositId) external onlyRelayer {
        Deposit storage open = deposits[depositId];
        if (open.status != Status.Deposited) revert NotOpen(depositId);
        open.status = Status.Settled;
        IERC20(open.inputToken).safeTransfer(relayer, open.inputAmount);
        emit Settled(depositId, open.inputAmount);
    }

    /// @notice The deadline passed and nobody filled the deposit: it goes back to its depositor.
    function refund(uint256 depositId) external onlyRelayer {
        Deposit storage open = deposits[depositId];
        if (open.status != Status.Deposited) revert NotOpen(depositId);
        if (block.timestamp <= open.fillDeadline) revert FillDeadlineNotPassed(open.fillDeadline);
        open.status = Status.Refunded;
        IERC20(open.inputToken).safeTransfer(open.depositor, open.inputAmount);
        emit Refunded(depositId, open.depositor, open.inputAmount);
    }
}
